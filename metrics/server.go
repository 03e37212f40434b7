package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ErrNotLoopback refuses an address beyond the host without allowRemote.
var ErrNotLoopback = errors.New("metrics: listen address is not loopback")

// HealthTimeout bounds one /healthz check.
const HealthTimeout = 2 * time.Second

// Listen opens the TCP listener for addr (host:port). Unless allowRemote,
// the host must be loopback, and so must the address actually bound:
// "localhost" that resolves elsewhere, or an empty or unspecified host
// (every interface), is refused.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen address %q: %w", addr, err)
	}
	if !allowRemote && (host == "" || isUnspecified(host)) {
		return nil, fmt.Errorf("%w: %q listens on every interface (set metrics.allow_remote to mean it)", ErrNotLoopback, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !allowRemote && (!ok || !tcp.IP.IsLoopback()) {
		ln.Close()
		return nil, fmt.Errorf("%w: %q bound %s (use 127.0.0.1 or [::1], or set metrics.allow_remote)", ErrNotLoopback, addr, ln.Addr())
	}
	return ln, nil
}

func isUnspecified(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

// Handler serves GET /metrics (the registry, in the Prometheus text or
// OpenMetrics format) and GET /healthz: "ok" with 200 when health returns
// nil within HealthTimeout, else 503 with the reason.
func (m *Metrics) Handler(health func(ctx context.Context) error) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorHandling:     promhttp.ContinueOnError,
		Timeout:           2 * ScrapeTimeout,
		EnableOpenMetrics: true,
	}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), HealthTimeout)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if health != nil {
			if err := health(ctx); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintf(w, "unhealthy: %v\n", err)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "wakewheel: /metrics (Prometheus), /healthz")
	})
	return mux
}

// Serve serves h on ln in a goroutine and returns the server; stop it with
// Shutdown.
func Serve(ln net.Listener, h http.Handler) *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
	go srv.Serve(ln) //nolint:errcheck // ends with ErrServerClosed at Shutdown
	return srv
}
