-- The commands that wrote made-up data into the workspace.
SELECT maker, detail FROM provenance ORDER BY maker;
