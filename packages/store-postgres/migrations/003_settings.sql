-- Deployment-wide values every server of one database shares, each written once by whichever server starts
-- first (the page-cursor key: a cursor one server issues must open on any other).
CREATE TABLE settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
