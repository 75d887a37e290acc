-- process types of up to 32 characters (rewrite-manifests)
ALTER TABLE optimizing_process ALTER COLUMN optimizing_type SET DATA TYPE VARCHAR(32);
