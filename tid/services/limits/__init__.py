"""How much one client may ask, counted in the database so that each bound holds across every
worker: failed attempts, requests a minute, heavy work at once."""
