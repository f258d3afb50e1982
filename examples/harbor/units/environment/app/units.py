"""Parsing human-written durations."""


def parse_duration(text):
    raise NotImplementedError("parse_duration")
