"""A MkDocs hook: the docstrings use Sphinx roles (``:func:`run_tournament```) and reST literal blocks
(``itself::``), which mkdocstrings shows as written. Each role becomes code, linked to the object's entry
when the page documents it; a paragraph's closing ``::`` becomes ``:``."""

import re

ROLE = re.compile(r":(?:class|mod|func|meth|data|attr|exc|obj):<code>~?([\w.]+)</code>")
IDENTIFIERS = re.compile(r'id="(autodup[\w.]*)"')


def on_page_content(html, page, config, files):
    anchors = IDENTIFIERS.findall(html)

    def linked(match):
        name = match.group(1)
        shown = name.rsplit(".", 1)[-1] if "~" in match.group(0) else name  # reST: ~ shows the last part
        target = next((anchor for anchor in anchors if anchor == name or anchor.endswith("." + name)), None)
        code = f"<code>{shown}</code>"
        return f'<a href="#{target}">{code}</a>' if target else code

    html = ROLE.sub(linked, html)
    return html.replace("::</p>", ":</p>")
