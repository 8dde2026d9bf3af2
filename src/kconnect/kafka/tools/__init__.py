"""Read-only and housekeeping looks at a cluster for the CLI, the local stack and tests: reading a
topic from the beginning, listing groups, waiting for a broker, creating and deleting topics."""
