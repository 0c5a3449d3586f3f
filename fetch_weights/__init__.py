"""`make weights`: mirror the pinned official weights and voices into a local cache."""
