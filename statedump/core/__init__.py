"""The core: records to files and git, and files and git back to records.

Nothing here imports a service or a face. `codec` turns records into YAML and back, `layout`
knows where a record's file lives, `git/` is the one way to reach git, `store/` reads and writes
sessions, `render/` turns data into Markdown, terminal text and JSON.
"""
