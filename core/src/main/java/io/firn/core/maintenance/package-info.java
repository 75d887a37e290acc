/**
 * Table maintenance as a library: snapshot expiry that keeps Flink's restore point ({@link
 * io.firn.core.maintenance.SnapshotExpiry}), orphan file cleanup ({@link
 * io.firn.core.maintenance.OrphanFileCleanup}) and dangling delete removal ({@link
 * io.firn.core.maintenance.DanglingDeleteRemoval}). Each operation takes its settings record and
 * returns a report record; scheduling (enabled flags, intervals) is the server's, configured
 * through {@link io.firn.core.maintenance.MaintenanceSettings}. See docs/adr/0010-maintenance.md.
 */
package io.firn.core.maintenance;
