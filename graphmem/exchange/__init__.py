"""Data in and out of a store: JSON Lines export/import and analysis views."""
