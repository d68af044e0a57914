"""Parvez, Mahanti & Williamson 2010."""
