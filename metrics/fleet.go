package metrics

import "github.com/prometheus/client_golang/prometheus"

// FleetSnapshot is a fleet member's state at one scrape (nil outside a
// fleet).
type FleetSnapshot struct {
	BrokerUp, Importing             bool
	Outbox, OutboxMax               int
	Forwarded, Imported, Terminated uint64 // since the daemon started
	Redelivered, BeaconsSent        uint64 // since the daemon started
}

// fleetDescs are the fleet's series.
type fleetDescs struct {
	up, importing, outbox, outboxMax                      *prometheus.Desc
	forwarded, imported, terminated, redelivered, beacons *prometheus.Desc
}

func newFleetDescs() fleetDescs {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("wakewheel_fleet_"+name, help, nil, nil)
	}
	return fleetDescs{
		up:          d("broker_up", "1 while this member is connected to the fleet's broker."),
		importing:   d("importing", "1 while this home imports its lanes' posts from the stream."),
		outbox:      d("outbox_posts", "Posts to lanes homed elsewhere, queued here until the broker has them."),
		outboxMax:   d("outbox_max", "The outbox's bound (fleet.outbox.max): posts past it are refused."),
		forwarded:   d("forwarded_total", "Posts the broker acknowledged from this host's outbox since the daemon started."),
		imported:    d("imported_total", "Posts imported into this home's lanes from the stream since the daemon started."),
		terminated:  d("terminated_total", "Stream messages for this home dropped as malformed (and alerted) since the daemon started."),
		redelivered: d("redelivered_total", "Imports that were redeliveries (absorbed by the lanes' id index) since the daemon started."),
		beacons:     d("beacons_total", "Beacons published in the fleet's bucket since the daemon started."),
	}
}

func (f fleetDescs) describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{f.up, f.importing, f.outbox, f.outboxMax, f.forwarded, f.imported, f.terminated, f.redelivered, f.beacons} {
		ch <- d
	}
}

func (f fleetDescs) collect(ch chan<- prometheus.Metric, s *FleetSnapshot) {
	if s == nil {
		return
	}
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	g, c := prometheus.GaugeValue, prometheus.CounterValue
	ch <- prometheus.MustNewConstMetric(f.up, g, b(s.BrokerUp))
	ch <- prometheus.MustNewConstMetric(f.importing, g, b(s.Importing))
	ch <- prometheus.MustNewConstMetric(f.outbox, g, float64(s.Outbox))
	ch <- prometheus.MustNewConstMetric(f.outboxMax, g, float64(s.OutboxMax))
	ch <- prometheus.MustNewConstMetric(f.forwarded, c, float64(s.Forwarded))
	ch <- prometheus.MustNewConstMetric(f.imported, c, float64(s.Imported))
	ch <- prometheus.MustNewConstMetric(f.terminated, c, float64(s.Terminated))
	ch <- prometheus.MustNewConstMetric(f.redelivered, c, float64(s.Redelivered))
	ch <- prometheus.MustNewConstMetric(f.beacons, c, float64(s.BeaconsSent))
}
