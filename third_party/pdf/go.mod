module github.com/ledongthuc/pdf

go 1.24.1
