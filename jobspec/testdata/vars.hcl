image = "nginx:1"
count = 4
