//===- SpadePasses.td - Passes of the SPADE target ---------*- tablegen -*-===//

#ifndef SPTUNE_TARGETS_SPADE_SPADEPASSES_TD
#define SPTUNE_TARGETS_SPADE_SPADEPASSES_TD

include "mlir/Pass/PassBase.td"

def EmitSpade : Pass<"sptune-emit-spade", "ModuleOp"> {
  let summary = "Emit SPADE tile programs for kernels with SPADE schedules";
  let description = [{
    For each op carrying `sptune.kernel` and a SPADE `#sptune.schedule`,
    builds the SPADE tile program (configuration, tile instructions over row
    panels x column tiles assigned to PEs, barriers between column-tile
    phases; see targets/spade/README.md) from the kernel's static shape and
    the schedule, writes it to a file that `spade-sim --program` runs
    together with the matrix, and records the file name on the op as
    `sptune.spade_program`. The kernel's shapes must be static.
  }];
  let options = [
    Option<"outputDir", "output-dir", "std::string", /*default=*/"\".\"",
           "Directory of the program files (<function>.<n>.spade)">,
    Option<"machinePes", "pes", "int", /*default=*/"0",
           "PEs of the machine (0 = the simulator's default machine)">,
  ];
}

#endif // SPTUNE_TARGETS_SPADE_SPADEPASSES_TD
