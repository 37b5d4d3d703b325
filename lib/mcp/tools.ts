import type { AnyToolDefinition } from './tool';
import { bestTimeTool } from './tools/best-time';
import { currentGasTool } from './tools/current-gas';
import { ethPriceTool } from './tools/eth-price';
import { forecastAccuracyTool } from './tools/forecast-accuracy';
import { gasForecastTool } from './tools/gas-forecast';
import { gasHistoryTool } from './tools/gas-history';
import { l2GasTool } from './tools/l2-gas';
import { transactionCostTool } from './tools/transaction-cost';

/** Every tool the MCP endpoint offers (SPEC.md 4.8), in the order tools/list shows them. */
export const TOOLS: readonly AnyToolDefinition[] = [
  currentGasTool,
  l2GasTool,
  ethPriceTool,
  bestTimeTool,
  transactionCostTool,
  gasForecastTool,
  gasHistoryTool,
  forecastAccuracyTool,
];

/** The tool names, for messages that list what exists. */
export const TOOL_NAMES: readonly string[] = TOOLS.map((tool) => tool.name);
