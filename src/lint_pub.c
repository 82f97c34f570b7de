/*
 * lint_pub.c: what well-known DRA drivers publish on every device of their ResourceSlices, the
 * table behind lint's unguarded-access rule (src/lint.c): a read of an attribute or capacity
 * behind a check of device.driver is safe when every driver the check admits publishes it on
 * every device (or on every device whose `when` attribute is one of `in`, when the read is also
 * behind a check of that attribute). A PublishedAttributes file adds rows (src/lint.c reads it).
 *
 * Each row is taken from the driver's own source (its releases of 2025-2026): the device
 * attributes it sets unconditionally; docs/lint.md lists the table with its sources. An
 * attribute a driver sets only sometimes (NVIDIA's resource.kubernetes.io/pcieRoot, which
 * needs a known PCIe root) is not here: its read stays a warning. Early releases published
 * less (NVIDIA's first ones had no `type`, and `index` and `minor` that later ones dropped):
 * with such a fleet, --slices checks what it really publishes.
 *
 * Change with: lint.h, src/lint.c, docs/lint.md ("What drivers publish").
 */
#include "lint.h"

static const char *const NV_GPU_MIG[] = {"gpu", "mig"};
static const char *const NV_MIG[] = {"mig"};
static const char *const NV_VFIO[] = {"vfio"};

#define NV "gpu.nvidia.com"
#define CD "compute-domain.nvidia.com"
#define EX "gpu.example.com"
#define ROW(drv, kind, id) {drv, kind, drv, id, NULL, NULL, 0}
#define WHEN(drv, kind, id, in) {drv, kind, drv, id, "type", in, sizeof in / sizeof in[0]}

static const dc_lpub BUILTIN[] = {
    /* NVIDIA's GPU driver (k8s-dra-driver-gpu, cmd/gpu-kubelet-plugin/deviceinfo.go): full
     * GPUs (type "gpu"), MIG devices ("mig"), GPUs bound to vfio-pci ("vfio") */
    ROW(NV, LP_ATTR, "type"),
    ROW(NV, LP_ATTR, "uuid"),
    ROW(NV, LP_ATTR, "productName"),
    WHEN(NV, LP_ATTR, "brand", NV_GPU_MIG),
    WHEN(NV, LP_ATTR, "architecture", NV_GPU_MIG),
    WHEN(NV, LP_ATTR, "cudaComputeCapability", NV_GPU_MIG),
    WHEN(NV, LP_ATTR, "driverVersion", NV_GPU_MIG),
    WHEN(NV, LP_ATTR, "cudaDriverVersion", NV_GPU_MIG),
    WHEN(NV, LP_CAP, "memory", NV_GPU_MIG),
    WHEN(NV, LP_ATTR, "parentUUID", NV_MIG),
    WHEN(NV, LP_ATTR, "profile", NV_MIG),
    WHEN(NV, LP_CAP, "multiprocessors", NV_MIG),
    WHEN(NV, LP_CAP, "copyEngines", NV_MIG),
    WHEN(NV, LP_CAP, "decoders", NV_MIG),
    WHEN(NV, LP_CAP, "encoders", NV_MIG),
    WHEN(NV, LP_CAP, "jpegEngines", NV_MIG),
    WHEN(NV, LP_CAP, "ofaEngines", NV_MIG),
    WHEN(NV, LP_ATTR, "deviceID", NV_VFIO),
    WHEN(NV, LP_ATTR, "vendorID", NV_VFIO),
    WHEN(NV, LP_ATTR, "numa", NV_VFIO),
    WHEN(NV, LP_ATTR, "pcieBusID", NV_VFIO),
    WHEN(NV, LP_CAP, "addressableMemory", NV_VFIO),
    /* its ComputeDomain driver (cmd/compute-domain-kubelet-plugin/deviceinfo.go): channels and
     * daemons */
    ROW(CD, LP_ATTR, "type"),
    ROW(CD, LP_ATTR, "id"),
    /* the example driver (kubernetes-sigs/dra-example-driver,
     * cmd/dra-example-kubeletplugin/discovery.go) */
    ROW(EX, LP_ATTR, "index"),
    ROW(EX, LP_ATTR, "uuid"),
    ROW(EX, LP_ATTR, "model"),
    ROW(EX, LP_ATTR, "driverVersion"),
    ROW(EX, LP_CAP, "memory"),
};

const dc_lpub *dc_lpub_builtin(uint32_t *n)
{
    *n = (uint32_t)(sizeof BUILTIN / sizeof BUILTIN[0]);
    return BUILTIN;
}
