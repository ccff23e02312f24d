"""The audit chain seen from the app: checkpoints outside the database, and what verify checks."""
