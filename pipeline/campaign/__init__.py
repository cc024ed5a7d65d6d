"""Campaigns: plan the seeds' benchmark method as fio job files, run them, and leave a
report folder that ``iopress build`` turns into the whitepaper (docs/campaign.md)."""
