package api

// The client's half of a post's round trip on its stream: the post is
// written and its answer's first bytes read by one rawTrip (rawtrip.go).
// Anything out of the ordinary takes the ordinary path: a frame larger
// than rawFrame, a connection whose reader holds bytes, a platform
// without raw syscalls here.

// rawFrame bounds the frames written by a rawTrip (a larger one may not
// fit the socket's buffer at once).
const rawFrame = 16 << 10

// roundTrip writes frame and returns what arrived first of the answer,
// read into the connection's buffer; nil with no error when the answer is
// left to be read from cn.br (the ordinary path).
func (cn *clientConn) roundTrip(frame []byte) (first []byte, err error) {
	if cn.raw == nil || len(frame) > rawFrame || cn.br.Buffered() > 0 {
		_, err := cn.c.Write(frame)
		return nil, err
	}
	if cn.trip == nil {
		cn.trip, cn.in = newRawTrip(), make([]byte, 4096)
	}
	sent, got, err := cn.trip.run(cn.raw, frame, cn.in)
	if err != nil {
		return nil, err
	}
	if sent < len(frame) {
		_, err := cn.c.Write(frame[sent:])
		return nil, err
	}
	return cn.in[:got], nil
}
