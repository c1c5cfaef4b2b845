"""CrossGuard policy pack for nodepools."""
