-- Records that maker wrote made-up data into the workspace.
INSERT OR REPLACE INTO provenance (maker, detail) VALUES (?, ?);
