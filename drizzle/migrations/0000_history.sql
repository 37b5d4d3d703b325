CREATE TABLE "l2_snapshots" (
	"network" text NOT NULL,
	"slot_start" timestamp with time zone NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	"gas_price_gwei" double precision NOT NULL,
	"execution_gas_cost_usd" double precision NOT NULL,
	"l1_data_fee_usd" double precision,
	"native_usd" double precision NOT NULL,
	CONSTRAINT "l2_snapshots_network_slot_start_pk" PRIMARY KEY("network","slot_start")
);
--> statement-breakpoint
CREATE TABLE "mainnet_snapshots" (
	"slot_start" timestamp with time zone PRIMARY KEY NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	"block_number" bigint,
	"base_fee_gwei" double precision,
	"low_gwei" double precision NOT NULL,
	"average_gwei" double precision NOT NULL,
	"high_gwei" double precision NOT NULL,
	"source" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "l2_snapshots_slot_idx" ON "l2_snapshots" USING btree ("slot_start");