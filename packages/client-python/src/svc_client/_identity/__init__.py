"""Workload identity federation, the client's side: a platform's token exchanged for
short-lived keys, refreshed before they expire."""
