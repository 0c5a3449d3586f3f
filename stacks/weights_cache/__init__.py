"""Lambda code of the weights-cache custom resource (deployed as its own asset directory)."""
