"""Checks tlm's HTML reports and SVG plots for markup that recording values injected.

Usage: hostile_markup.py FILE...   (.html or .svg)

The fuzzed values carry the marker 36: a live element or attribute from them
(a <script> element whose code is alert(36), an <x36> element, an onload=
attribute), an SVG (a file, or one inline in a report) that is not
well-formed XML, or an XML-invalid character in an SVG file is a problem. Prints one JSON list of problems (empty when none) and exits 0.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class Live(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems = []
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        if tag == "x36":
            self.problems.append("a live <x36> element")
        for name, _ in attrs:
            if name.startswith("on") and name != "onclick":
                self.problems.append(f"a live {name}= attribute on <{tag}>")
        self.in_script = tag == "script"

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_script = False

    def handle_data(self, data):
        # The report's own scripts may hold the values as JSON strings; a
        # script element the data made starts with its code.
        if self.in_script and data.strip().startswith("alert(36)"):
            self.problems.append("a live <script> from the data")


def check(path):
    problems = []
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return [f"{path}: not UTF-8 ({error})"]
    if path.endswith(".svg") and XML_INVALID.search(text):
        problems.append(f"{path}: an XML-invalid character")
    svgs = [text] if path.endswith(".svg") else re.findall(r"<svg\b.*?</svg>", text, re.S)
    if path.endswith(".html"):
        parser = Live()
        parser.feed(text)
        problems += [f"{path}: {p}" for p in parser.problems]
    for number, svg in enumerate(svgs):
        try:
            ET.fromstring(svg)
        except ET.ParseError as error:
            problems.append(f"{path}: SVG {number} is not well-formed XML ({error})")
    return problems


print(json.dumps([p for path in sys.argv[1:] for p in check(path)]))
