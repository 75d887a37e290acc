/** Firn core: table statistics, the pure planner, policies and catalog connection. */
package io.firn.core;
