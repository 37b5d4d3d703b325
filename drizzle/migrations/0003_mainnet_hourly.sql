CREATE TABLE "mainnet_hourly" (
	"hour" timestamp with time zone PRIMARY KEY NOT NULL,
	"snapshots" integer NOT NULL,
	"low_sum" double precision NOT NULL,
	"average_sum" double precision NOT NULL,
	"high_sum" double precision NOT NULL
);
--> statement-breakpoint
-- Written by hand from here on (drizzle-kit generated the table above but does not model functions
-- or triggers): a regenerated or squashed migration must keep what follows.
-- Keeps mainnet_hourly equal to the hourly count and sums of mainnet_snapshots, whatever statement
-- writes there (rows an ON CONFLICT DO NOTHING skips are not in the transition table). Additions and
-- subtractions on the hour's row, taken under its lock, so overlapping writers of one hour add up.
-- Every statement locks its hours in ascending order (and the snapshot job prunes before it writes),
-- so two writers of the same hours wait for each other instead of deadlocking.
-- The start (UTC, whatever the session's time zone) of the hour holding a slot.
CREATE FUNCTION "mainnet_hour"(slot_start timestamp with time zone) RETURNS timestamp with time zone
	LANGUAGE sql STABLE AS $$ SELECT to_timestamp(floor(date_part('epoch', slot_start) / 3600) * 3600) $$;
--> statement-breakpoint
CREATE FUNCTION "mainnet_hourly_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'TRUNCATE' THEN
		DELETE FROM "mainnet_hourly";
		RETURN NULL;
	END IF;
	IF TG_OP IN ('DELETE', 'UPDATE') THEN
		PERFORM 1 FROM "mainnet_hourly"
		WHERE "hour" IN (SELECT "mainnet_hour"("slot_start") FROM removed)
		ORDER BY "hour" FOR UPDATE;
		UPDATE "mainnet_hourly" AS h
		SET "snapshots" = h."snapshots" - r."snapshots",
			"low_sum" = h."low_sum" - r."low_sum",
			"average_sum" = h."average_sum" - r."average_sum",
			"high_sum" = h."high_sum" - r."high_sum"
		FROM (
			SELECT "mainnet_hour"("slot_start") AS "hour",
				count(*)::integer AS "snapshots", sum("low_gwei") AS "low_sum",
				sum("average_gwei") AS "average_sum", sum("high_gwei") AS "high_sum"
			FROM removed GROUP BY 1
		) AS r
		WHERE h."hour" = r."hour";
		DELETE FROM "mainnet_hourly"
		WHERE "snapshots" <= 0
			AND "hour" IN (SELECT "mainnet_hour"("slot_start") FROM removed);
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		INSERT INTO "mainnet_hourly" AS h ("hour", "snapshots", "low_sum", "average_sum", "high_sum")
		SELECT "mainnet_hour"("slot_start"), count(*)::integer,
			sum("low_gwei"), sum("average_gwei"), sum("high_gwei")
		FROM added GROUP BY 1 ORDER BY 1
		ON CONFLICT ("hour") DO UPDATE
		SET "snapshots" = h."snapshots" + excluded."snapshots",
			"low_sum" = h."low_sum" + excluded."low_sum",
			"average_sum" = h."average_sum" + excluded."average_sum",
			"high_sum" = h."high_sum" + excluded."high_sum";
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "mainnet_hourly_insert" AFTER INSERT ON "mainnet_snapshots"
	REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "mainnet_hourly_apply"();
--> statement-breakpoint
CREATE TRIGGER "mainnet_hourly_update" AFTER UPDATE ON "mainnet_snapshots"
	REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "mainnet_hourly_apply"();
--> statement-breakpoint
CREATE TRIGGER "mainnet_hourly_delete" AFTER DELETE ON "mainnet_snapshots"
	REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "mainnet_hourly_apply"();
--> statement-breakpoint
CREATE TRIGGER "mainnet_hourly_truncate" AFTER TRUNCATE ON "mainnet_snapshots"
	FOR EACH STATEMENT EXECUTE FUNCTION "mainnet_hourly_apply"();
--> statement-breakpoint
-- The hours already stored.
INSERT INTO "mainnet_hourly" ("hour", "snapshots", "low_sum", "average_sum", "high_sum")
SELECT "mainnet_hour"("slot_start"), count(*)::integer,
	sum("low_gwei"), sum("average_gwei"), sum("high_gwei")
FROM "mainnet_snapshots" GROUP BY 1;
