"""Model weights trained offline by bench/train_models.py, shipped as JSON package data."""
