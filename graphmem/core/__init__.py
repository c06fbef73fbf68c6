"""The core: data models, errors, value checks, the storage contract and the backend registry."""
