module github.com/wakewheel/wakewheel/bench/wheelcmp

go 1.26.0

require (
	github.com/RussellLuo/timingwheel v0.0.0-20220218152713-54845bda3108
	github.com/wakewheel/wakewheel v0.0.0
)

require golang.org/x/sys v0.50.0 // indirect

replace github.com/wakewheel/wakewheel => ../..
