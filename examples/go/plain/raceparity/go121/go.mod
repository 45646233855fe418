module example.com/raceparity121

go 1.21
