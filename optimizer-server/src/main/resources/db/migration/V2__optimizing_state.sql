-- optimizing state, processes, tasks and workers
ALTER TABLE table_runtime ADD COLUMN state VARCHAR(32) DEFAULT 'idle' NOT NULL;
ALTER TABLE table_runtime ADD COLUMN state_since_ms BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN paused BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE table_runtime ADD COLUMN parked_reason VARCHAR(4000);
ALTER TABLE table_runtime ADD COLUMN parked_until_ms BIGINT;
ALTER TABLE table_runtime ADD COLUMN failures INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN last_process_id VARCHAR(64);

CREATE TABLE optimizing_process (
  process_id VARCHAR(64) NOT NULL PRIMARY KEY,
  catalog_name VARCHAR(255) NOT NULL,
  namespace_name VARCHAR(1024) NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  optimizing_type VARCHAR(16) NOT NULL,
  trigger_kind VARCHAR(16) NOT NULL,
  status VARCHAR(16) NOT NULL,
  snapshot_id BIGINT NOT NULL,
  partition_count INTEGER NOT NULL,
  task_count INTEGER NOT NULL,
  rewrite_bytes BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  finished_at_ms BIGINT,
  message VARCHAR(4000) NOT NULL,
  committed_groups INTEGER NOT NULL,
  failed_groups INTEGER NOT NULL,
  rows_written BIGINT NOT NULL,
  bytes_read BIGINT NOT NULL,
  bytes_written BIGINT NOT NULL);
CREATE INDEX optimizing_process_table ON optimizing_process
  (catalog_name, namespace_name, table_name, created_at_ms);
CREATE INDEX optimizing_process_status ON optimizing_process (status);

CREATE TABLE optimizing_task (
  process_id VARCHAR(64) NOT NULL,
  task_number INTEGER NOT NULL,
  partition_path VARCHAR(4000) NOT NULL,
  status VARCHAR(16) NOT NULL,
  attempts INTEGER NOT NULL,
  attempt_id VARCHAR(128),
  worker_id VARCHAR(64),
  rewrite_files INTEGER NOT NULL,
  convert_files INTEGER NOT NULL,
  rewrite_bytes BIGINT NOT NULL,
  started_at_ms BIGINT,
  finished_at_ms BIGINT,
  message VARCHAR(4000) NOT NULL,
  rows_read BIGINT NOT NULL,
  rows_written BIGINT NOT NULL,
  bytes_written BIGINT NOT NULL,
  PRIMARY KEY (process_id, task_number));

CREATE TABLE optimizer_worker (
  worker_id VARCHAR(64) NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  group_name VARCHAR(255) NOT NULL,
  slots INTEGER NOT NULL,
  engine VARCHAR(32) NOT NULL,
  engine_version VARCHAR(64) NOT NULL,
  registered_at_ms BIGINT NOT NULL,
  last_seen_at_ms BIGINT NOT NULL);
