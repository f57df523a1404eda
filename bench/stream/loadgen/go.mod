module svc.local/bench/stream/loadgen

go 1.22
