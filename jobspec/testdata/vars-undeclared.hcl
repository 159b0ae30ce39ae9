nope = 1
