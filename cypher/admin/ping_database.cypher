// Round trip to the database: proves the server answers, the credentials work and the
// database exists.
RETURN 1 AS ok
