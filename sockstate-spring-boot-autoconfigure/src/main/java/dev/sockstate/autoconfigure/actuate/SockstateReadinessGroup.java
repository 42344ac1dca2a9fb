package dev.sockstate.autoconfigure.actuate;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Puts the {@code sockstate} health indicator in the readiness probe's group beside the
 * application's readiness state, so that a load balancer or Kubernetes stops sending traffic while
 * the socket server is down or draining. It offers Spring Boot's availability probes a readiness
 * group with both members, as the probes would make one with the readiness state alone; a readiness
 * group the application configures itself is left as it is. Being a group that is made, not a
 * property, it never fails start-up, whichever contributors exist. Any readiness group the
 * application configures ({@code management.endpoint.health.group.readiness.*}) is left as it is.
 * An outbound client is a member only when its {@code health.readiness} says so
 * ({@code sockstateClients/<name>}): a backend that is down takes the application out of traffic
 * only when nothing can be served without it.
 */
@Order(Ordered.LOWEST_PRECEDENCE - 1)
final class SockstateReadinessGroup implements HealthEndpointGroupsPostProcessor {

    static final String READINESS = "readiness";

    /** The contributor of the clients' health, {@code sockstateClients/<name>} for each client. */
    static final String CLIENTS = "sockstateClients";

    private final Supplier<Set<String>> readinessClients;

    /** @param readinessClients the clients whose health is part of the readiness probe */
    SockstateReadinessGroup(Supplier<Set<String>> readinessClients) {
        this.readinessClients = readinessClients;
    }

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        if (groups.get(READINESS) != null) {
            return groups;
        }
        Set<String> members = new LinkedHashSet<>(List.of("readinessState", "sockstate"));
        this.readinessClients.get().forEach((client) -> members.add(CLIENTS + "/" + client));
        return new WithReadiness(groups, members);
    }

    /**
     * The groups, and a readiness group of the readiness state and the socket server; the additional
     * paths of the groups it wraps are still found through it.
     */
    private static final class WithReadiness implements HealthEndpointGroups, AdditionalPathsMapper {

        private final HealthEndpointGroups groups;

        private final HealthEndpointGroup readiness;

        WithReadiness(HealthEndpointGroups groups, Set<String> members) {
            this.groups = groups;
            this.readiness = new ReadinessGroup(members);
        }

        @Override
        public HealthEndpointGroup getPrimary() {
            return this.groups.getPrimary();
        }

        @Override
        public Set<String> getNames() {
            Set<String> names = new LinkedHashSet<>(this.groups.getNames());
            names.add(READINESS);
            return names;
        }

        @Override
        public @Nullable HealthEndpointGroup get(String name) {
            return READINESS.equals(name) ? this.readiness : this.groups.get(name);
        }

        @Override
        public @Nullable List<String> getAdditionalPaths(EndpointId endpointId, WebServerNamespace webServerNamespace) {
            return (this.groups instanceof AdditionalPathsMapper mapper) ? mapper.getAdditionalPaths(endpointId, webServerNamespace)
                    : null;
        }
    }

    /**
     * What Spring Boot's readiness probe group is, with the socket server as a member too: like the
     * probe's own, it shows no components or details, since a probe path may be served on the
     * application's public port.
     */
    private static final class ReadinessGroup implements HealthEndpointGroup {

        private final Set<String> members;

        ReadinessGroup(Set<String> members) {
            this.members = members;
        }

        @Override
        public boolean isMember(String name) {
            return this.members.contains(name);
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            return false;
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return false;
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return StatusAggregator.getDefault();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return HttpCodeStatusMapper.getDefault();
        }

        @Override
        public @Nullable AdditionalHealthEndpointPath getAdditionalPath() {
            return null;
        }
    }
}
