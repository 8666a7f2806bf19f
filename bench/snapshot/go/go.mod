module slatebench/snapshot

go 1.24
