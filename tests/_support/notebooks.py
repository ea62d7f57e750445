"""Reading the committed outputs of the book's notebooks."""


def glued_values(nb):
    """The values a notebook glued with myst-nb: name -> text/plain representation."""
    out = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook")
            if record:
                data = output["data"]
                out[record["name"]] = data.get(record.get("mime_prefix", "") + "text/plain")
    return out
