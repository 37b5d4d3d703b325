CREATE TABLE "hourly_forecasts" (
	"origin_hour" timestamp with time zone PRIMARY KEY NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"current_average_gwei" double precision NOT NULL,
	"current_read_at" timestamp with time zone NOT NULL,
	"current_source" text NOT NULL,
	"points" jsonb NOT NULL,
	"decision" jsonb NOT NULL,
	"using_fallback_data" boolean NOT NULL,
	"data_points" integer NOT NULL,
	"scored_at" timestamp with time zone,
	"outcome" jsonb
);
--> statement-breakpoint
CREATE INDEX "hourly_forecasts_unscored_idx" ON "hourly_forecasts" USING btree ("origin_hour") WHERE "hourly_forecasts"."scored_at" IS NULL;