# gradwall advise: one Ray placement group per region, its GPU bundles packed together.
import ray
from ray.util.placement_group import placement_group


def region_groups():
    return {
        "us-west": placement_group([{"GPU": 1}] * 4, strategy="PACK", name="us-west"),
        "us-east": placement_group([{"GPU": 1}] * 4, strategy="PACK", name="us-east"),
        "eu-west": placement_group([{"GPU": 1}] * 4, strategy="PACK", name="eu-west"),
    }
