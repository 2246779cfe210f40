module example.org/randbot

go 1.19

require example.org/pick v0.1.0
