"""Kindgi: the Python side of the Kindgi agent runtime. The pack SDK lives in :mod:`kindgi.pack`."""
