"""Device software components: what makes a node advertise its accelerators."""
