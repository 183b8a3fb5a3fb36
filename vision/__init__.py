"""Photo -> detections -> cards and rows. Knows nothing of scoring."""
