-- study_lengths: the lengths in words of the generations with text at
-- frozen points, counted per setting, developer and length. Words are
-- counted as queries.Words counts them: maximal runs of characters that are
-- not Unicode white space (the class below is unicode.IsSpace's: \t \n \v
-- \f \r, space, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
-- U+202F, U+205F, U+3000); TestStudyLengthsWords holds them equal.
SELECT g.simulator, g.condition, g.window_n, g.history_k, p.developer,
       len(regexp_extract_all(g.text,
           '[^\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+')) AS words,
       count(*) AS n
FROM generations g
JOIN points p ON p.id = g.point_id
WHERE g.error IS NULL AND g.text IS NOT NULL
GROUP BY ALL
ORDER BY g.simulator, g.condition, g.window_n, g.history_k, p.developer, words
