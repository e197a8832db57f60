"""Authoring: what proves a drill (`drill validate`) and checks its sample solutions."""
