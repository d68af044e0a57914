"""Jacobson & Karels 1988."""
