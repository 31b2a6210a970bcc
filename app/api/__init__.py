"""The HTTP layer: parse requests, call the search layer, format responses."""
