-- table health and file counts
ALTER TABLE table_runtime ADD COLUMN health INTEGER DEFAULT 100 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN data_files BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN equality_delete_files BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN position_delete_files BIGINT DEFAULT 0 NOT NULL;
