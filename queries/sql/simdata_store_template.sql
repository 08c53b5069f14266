-- simdata_store_template: record a prompt template version (kept when present).
INSERT OR IGNORE INTO prompt_templates (version, name, text) VALUES (?, ?, ?)
