package api

import (
	"strconv"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// The post's request and answer without reflection (jsonscan.go says why
// and how encoding/json keeps the last word). Field order and omissions
// follow the structs' tags: the tests compare every byte with
// encoding/json.

// appendPostRequest appends req as json.Marshal writes it.
func appendPostRequest(b []byte, req *PostRequest) []byte {
	b = append(b, `{"lane":`...)
	b = appendString(b, req.Lane)
	b = append(b, `,"class":`...)
	b = appendString(b, req.Class)
	if req.ID != "" {
		b = append(b, `,"id":`...)
		b = appendString(b, req.ID)
	}
	b = append(b, `,"body":`...)
	b = appendString(b, req.Body)
	b = appendLocator(b, req.Locator)
	if req.Key != "" {
		b = append(b, `,"key":`...)
		b = appendString(b, req.Key)
	}
	if req.Canary {
		b = append(b, `,"canary":true`...)
	}
	if req.Create {
		b = append(b, `,"create":true`...)
	}
	if req.Wait != "" {
		b = append(b, `,"wait":`...)
		b = appendString(b, req.Wait)
	}
	return append(b, '}')
}

// parsePostRequest reads a post's body; false: leave it to encoding/json.
func parsePostRequest(b []byte) (req PostRequest, ok bool) {
	s := newScan(b)
	s.object(func(k []byte) {
		switch string(k) {
		case "lane":
			req.Lane = s.str()
		case "class":
			req.Class = s.str()
		case "id":
			req.ID = s.str()
		case "body":
			req.Body = s.str()
		case "locator":
			parseLocator(s, &req.Locator)
		case "key":
			req.Key = s.str()
		case "canary":
			req.Canary = s.boolean()
		case "create":
			req.Create = s.boolean()
		case "wait":
			req.Wait = s.str()
		default:
			s.ok = false
		}
	})
	return req, s.end()
}

// appendPostResult appends res as json.Encoder writes it (with its
// newline); false when encoding/json must write it (a time it would
// refuse).
func appendPostResult(b []byte, res *PostResult) ([]byte, bool) {
	b = append(b, `{"obligation":`...)
	b, ok := appendObligation(b, &res.Obligation)
	if !ok {
		return b, false
	}
	b = append(b, `,"duplicate":`...)
	b = strconv.AppendBool(b, res.Duplicate)
	if res.Route != "" {
		b = append(b, `,"route":`...)
		b = appendString(b, res.Route)
	}
	return append(b, "}\n"...), true
}

// parsePostResult reads a post's answer; false: leave it to encoding/json.
func parsePostResult(b []byte) (res PostResult, ok bool) { return parsePostAnswer(b, nil) }

// parsePostAnswer is parsePostResult of the answer to req (nil: any): the
// strings the answer echoes as req sent them are req's own, not copies.
func parsePostAnswer(b []byte, req *PostRequest) (res PostResult, ok bool) {
	s := newScan(b)
	s.object(func(k []byte) {
		switch string(k) {
		case "obligation":
			parseObligation(s, &res.Obligation, req)
		case "duplicate":
			res.Duplicate = s.boolean()
		case "route":
			res.Route = s.str()
		default:
			s.ok = false
		}
	})
	return res, s.end()
}

func appendObligation(b []byte, o *ob.Obligation) ([]byte, bool) {
	b = append(b, `{"lane":`...)
	b = appendString(b, o.Lane)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, o.Seq, 10)
	b = append(b, `,"id":`...)
	b = appendString(b, o.ID)
	b = append(b, `,"class":`...)
	b = appendString(b, string(o.Class))
	b = append(b, `,"body":`...)
	b = appendString(b, o.Body)
	b = appendLocator(b, o.Locator)
	if o.Key != "" {
		b = append(b, `,"key":`...)
		b = appendString(b, o.Key)
	}
	if o.Canary {
		b = append(b, `,"canary":true`...)
	}
	b = append(b, `,"posted":`...)
	b, ok := appendTime(b, o.Posted)
	if o.Duplicate {
		b = append(b, `,"duplicate":true`...)
	}
	if o.Compacted {
		b = append(b, `,"compacted":true`...)
	}
	return append(b, '}'), ok
}

// parseObligation reads an obligation; like, when not nil, is the request
// it answers (strLike).
func parseObligation(s *scan, o *ob.Obligation, like *PostRequest) {
	var lane, id, class, body string
	if like != nil {
		lane, id, class, body = like.Lane, like.ID, like.Class, like.Body
	}
	s.object(func(k []byte) {
		switch string(k) {
		case "lane":
			o.Lane = s.strLike(lane)
		case "seq":
			o.Seq = s.uint()
		case "id":
			o.ID = s.strLike(id)
		case "class":
			o.Class = ob.Class(s.strLike(class))
		case "body":
			o.Body = s.strLike(body)
		case "locator":
			parseLocator(s, &o.Locator)
		case "key":
			o.Key = s.str()
		case "canary":
			o.Canary = s.boolean()
		case "posted":
			o.Posted = s.timestamp()
		case "duplicate":
			o.Duplicate = s.boolean()
		case "compacted":
			o.Compacted = s.boolean()
		default:
			s.ok = false
		}
	})
}

// appendLocator appends `,"locator":{...}` unless l is zero (omitzero).
func appendLocator(b []byte, l ob.Locator) []byte {
	if l.IsZero() {
		return b
	}
	b = append(b, `,"locator":`...)
	sep := byte('{')
	for _, f := range [...]struct{ name, v string }{{"repo", l.Repo}, {"issue", l.Issue}, {"sha", l.SHA}, {"file", l.File}} {
		if f.v == "" {
			continue
		}
		b = append(b, sep, '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		b = appendString(b, f.v)
		sep = ','
	}
	return append(b, '}')
}

func parseLocator(s *scan, l *ob.Locator) {
	s.object(func(k []byte) {
		switch string(k) {
		case "repo":
			l.Repo = s.str()
		case "issue":
			l.Issue = s.str()
		case "sha":
			l.SHA = s.str()
		case "file":
			l.File = s.str()
		default:
			s.ok = false
		}
	})
}
