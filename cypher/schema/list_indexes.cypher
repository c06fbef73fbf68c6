// Every index with its state, to wait for ONLINE and to check vector dimensions.
SHOW INDEXES
YIELD name, type, entityType, labelsOrTypes, properties, state, populationPercent, options
RETURN name, type, entityType, labelsOrTypes, properties, state, populationPercent, options
ORDER BY name
