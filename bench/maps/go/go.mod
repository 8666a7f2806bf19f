module slatebench/maps

go 1.24
