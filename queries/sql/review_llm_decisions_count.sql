-- How many decisions of kind llm a reviewer has.
SELECT count(*) FROM rv_decisions d WHERE d.reviewer = ? AND d.kind = 'llm'
