CREATE TABLE "backtest_summaries" (
	"accuracy_window" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"figures" jsonb NOT NULL,
	CONSTRAINT "backtest_summaries_accuracy_window_hour_pk" PRIMARY KEY("accuracy_window","hour")
);
--> statement-breakpoint
CREATE TABLE "replayed_forecasts" (
	"origin_hour" timestamp with time zone PRIMARY KEY NOT NULL,
	"replayed_at" timestamp with time zone NOT NULL,
	"current_average_gwei" double precision NOT NULL,
	"points" jsonb NOT NULL,
	"decision" jsonb NOT NULL,
	"outcome" jsonb NOT NULL
);
