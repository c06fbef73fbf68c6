// Block until every index is ONLINE, or fail after $seconds.
CALL db.awaitIndexes($seconds)
