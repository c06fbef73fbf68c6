// Round trip to the database: proves the server answers, the credentials work and the
// database exists, and says which Neo4j it is (the store refuses one older than 5.26).
CALL dbms.components() YIELD name, versions, edition
WHERE name = 'Neo4j Kernel'
RETURN versions[0] AS version, edition
