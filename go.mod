module github.com/bernamp/bernamp

go 1.26.0
