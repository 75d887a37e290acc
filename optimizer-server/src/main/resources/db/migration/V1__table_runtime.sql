-- table runtime
CREATE TABLE table_runtime (
  catalog_name VARCHAR(255) NOT NULL,
  namespace_name VARCHAR(1024) NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  snapshot_id BIGINT,
  needs_plan BOOLEAN NOT NULL,
  reason VARCHAR(4000) NOT NULL,
  evaluated_at_ms BIGINT NOT NULL,
  PRIMARY KEY (catalog_name, namespace_name, table_name));
